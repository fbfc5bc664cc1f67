"""The HTTP edge: Flask app factory, blueprints, schemas, and the `cronaca` command line."""
