"""Spying on a function in a test: record_calls replaces it (through pytest's monkeypatch)
by a wrapper that records each call, then calls the original."""


def record_calls(monkeypatch, owner, name, keep=None):
    """Replace owner.<name> by a wrapper that appends keep(*args) (default: the first
    argument) to the list returned, then returns the original's result."""
    calls = []
    real = getattr(owner, name)

    def wrapper(*args, **kwargs):
        calls.append(keep(*args) if keep is not None else args[0])
        return real(*args, **kwargs)
    monkeypatch.setattr(owner, name, wrapper)
    return calls
