"""The sample checkpoint database the Inspect page offers, and the script that writes it."""
