"""Real exports from public repositories (../shared/samples/public), read as a new user would."""
