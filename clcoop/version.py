"""clcoop's version, in a module of its own: the package's __init__, the front end's debug
information (DICompileUnit's producer) and `clcoop --version` import it without importing one
another (an import of `clcoop` for it made a circle: clcoop -> api -> frontend.driver ->
frontend.lower -> clcoop)."""

__version__ = "0.1.0"
