"""Project store, datasets and importers, audio I/O."""
