"""The living review: screening rounds, frozen snapshots, discovery and the screening queue."""
