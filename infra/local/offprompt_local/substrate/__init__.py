"""The local stack's DynamoDB/S3 substrate: moto, made atomic, O(items touched), bounded and durable.

See docs/adr/0008-local-substrate.md. Importing this package does no work; `AtomicMotoServer.start()` installs
the moto patches (`moto_patches.install()`).
"""

from .server import AtomicMotoServer, SubstrateApp
from .store import DataDamaged, LoadReport, Store, StoreError

__all__ = ["AtomicMotoServer", "DataDamaged", "LoadReport", "Store", "StoreError", "SubstrateApp"]
