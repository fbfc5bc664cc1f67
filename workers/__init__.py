"""Background jobs (RQ on Redis, or in-process without REDIS_URL) and the outbox relay."""
