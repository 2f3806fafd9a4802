"""parity package."""
