"""An email assistant whose outgoing mail waits for a person: approve, edit or reject."""
