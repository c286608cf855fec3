from glueball.runtime.options import GlueArgumentError, GlueArgumentParser, _global_args, getResolvedOptions

__all__ = ["getResolvedOptions", "GlueArgumentError", "GlueArgumentParser", "_global_args"]
