"""Runtime adapters: one per runtime, all behind :class:`parity.runtimes.base.Runtime`."""
