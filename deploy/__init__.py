"""Deploying a big room: nginx in front of playground replicas (workshop.py, make workshop)."""
