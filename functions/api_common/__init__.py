"""What every HTTP/direct entry point shares: event dispatch, tenancy, body parsing, error mapping.

Lives with the functions (not in the layer) because it is the only code that knows about HTTP.
"""

# First: a Lambda init's imports run without the cyclic collector traversing them (docs/adr/0065).
from . import coldstart as _coldstart

_coldstart.hold()

# Before any module here imports Powertools' event handler: register it without its every-resolver __init__.
from . import powertools as _powertools  # noqa: E402, F401
