"""Command-line entry points (thin wrappers around the library)."""
