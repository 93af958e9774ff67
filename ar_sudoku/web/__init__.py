"""The web shell: a local ASGI app that serves the photo and live pages and their JSON API.

Optional (``pip install -e '.[web]'``): the core install never imports it. It
does what ``cli`` does for a terminal: takes bytes from the network, hands
arrays to the core (``ar.photo``, ``ar.session``), and turns the core's
results and errors into JSON and HTTP statuses.
"""
