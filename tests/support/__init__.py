"""Test support shared across the service folders; import its modules by name
(`tests.support.recognition_service`: the recognition services' requests, settings, recorders
and in-memory app harness)."""
