"""What every HTTP/direct entry point shares: event dispatch, tenancy, body parsing, error mapping.

Lives with the functions (not in the layer) because it is the only code that knows about HTTP.
"""

# Before any module here imports Powertools' event handler: register it without its every-resolver __init__.
from . import powertools as _powertools  # noqa: F401
