"""The bundled ticket REST API: tickets per tenant, conditional writes, safe retries.

Start it embedded with :func:`ticket_api.server.start_embedded` or from a terminal with the
``ticket-api`` command.
"""

__version__ = "0.1.0"
