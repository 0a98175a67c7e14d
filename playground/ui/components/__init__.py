"""Pieces of pages used on more than one page."""
