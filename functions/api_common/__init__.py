"""What every HTTP/direct entry point shares: event dispatch, tenancy, body parsing, error mapping.

Lives with the functions (not in the layer) because it is the only code that knows about HTTP.
"""
