"""What a graph is to the playground: an app it runs, loaded from a spec the server was given.

app.py       an App: a graph, its name, state and input schema, and the graph on a saver
loader.py    ``file.py:attr`` and ``package.module:attr`` specs, factories, clear load errors
errors.py    AppLoadError, the one-line error every way of loading reports
config.py    the ecosystem's ``langgraph.json`` (graphs, env, dependencies)
builtin.py   the ticket agent, registered as an app like any other
launch.py    which app a process runs (--graph, --config, or the built-in agent)
inputs.py    the input form a graph's input schema asks for
state_fields.py  what the graph's state accepts: its keys and hints, an edit checked against them
json_text.py the one parser of JSON typed into a form (an edit, a field, a store item)
drawing.py   a graph as DOT: subgraphs, conditional edges, the running and next nodes
"""
