"""A ReAct-style agent that answers questions about the office from its handbook."""
