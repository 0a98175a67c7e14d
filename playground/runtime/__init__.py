"""Running any app's graph: no Streamlit here, the Run page only draws what these return.

run.py    a streamed run (GraphRun): steps as they happen, breakpoints, answers to interrupt(),
          node failures with the user's traceback, the recursion limit, where a thread stands
chat.py   chat actions on a thread: edit a human message and fork, regenerate an AI message
time_travel.py  edit a state, replay, fork with an edit (History's form too), resume a thread
"""
