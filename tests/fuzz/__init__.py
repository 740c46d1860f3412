"""Property-based fuzzing of the edges: request bodies at the services, envelopes at the core."""
