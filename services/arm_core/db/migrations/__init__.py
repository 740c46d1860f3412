"""Alembic migrations of the core (a package so that installs ship them)."""
