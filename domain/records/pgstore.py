"""Moved: the PostgreSQL store is `domain/records/store/postgres.py`. Its names are kept here for imports written before."""

from domain.records.store.postgres import CopyRows, StoreBusy
from domain.records.store.postgres import PostgresRows as BoundedApplicationRecorder
from domain.records.store.postgres import PostgresSnapshots as BoundedAggregateRecorder
from domain.records.store.postgres import PostgresStore as BoundedPostgresFactory

__all__ = ["BoundedAggregateRecorder", "BoundedApplicationRecorder", "BoundedPostgresFactory", "CopyRows", "StoreBusy"]
