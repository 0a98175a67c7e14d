"""A chat that keeps facts about each user in the long-term store, across threads."""
