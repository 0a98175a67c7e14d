"""The ticket agent's workshop lessons, as pure commands over the agent, the API and the file.

conflicts.py and race.py (the 412 lesson), schema_lesson.py (what a key rename does to paused
threads), state_sizes.py (the bytes four ways of keeping state cost), demo.py (the eight-process
story), explain.py (a 412 in words). Each offers one named command per user action and returns
frozen dataclasses a page renders. Nothing here imports streamlit. They are shown for the
built-in ticket agent only.
"""
