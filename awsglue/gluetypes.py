from glueball.runtime.gluetypes import *  # noqa: F403
from glueball.runtime.gluetypes import __all__  # noqa: F401
