"""The package's version, in a module of its own so that what names it (--version, -o sarif's
tool) imports nothing else of the package."""

__version__ = "0.1.0"
