"""The web console: ``glueball server`` serves it at ``/console/`` on the API's own port.

The console is a browser page (vendored static assets, no CDN) that reads and acts through the same
edge as the API: every data call is a real boto3 request signed as the signed-in principal and
answered in-process (:mod:`.calls`), so policies, validation and errors are the API's. :mod:`.web`
is the ASGI application in front of the edge's; :mod:`.signin` keeps the sign-ins; :mod:`.pages`
lists the pages, each one JavaScript module under ``static/pages/``. See docs/console.md.
"""
