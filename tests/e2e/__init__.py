"""End-to-end tests: the three services as real processes on nats-server, S3 and a database."""
