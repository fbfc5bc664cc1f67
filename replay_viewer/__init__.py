"""The web replay viewer, served by the API."""
