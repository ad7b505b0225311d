"""Protocol code generated from protos/arena/v1 by grpc_tools.protoc (git-ignored, never edited).

Generated at install time; in a checkout it is regenerated on import whenever the protos changed.
"""

from arena.rpc.protogen import ensure_generated

ensure_generated()
