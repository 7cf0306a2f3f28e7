"""gpuvalue: deep-learning training speed per dollar, ranked daily.

The code lives in the repository's top-level folders (flows/, scrapers/, warehouse/,
models/). A built wheel installs them under this package so that generic names like
``models`` never shadow another distribution; in a source checkout this package's
path points at the repository root, so ``gpuvalue.models`` is ``<root>/models``.
"""

import os as _os

_here = _os.path.dirname(__file__)
if not _os.path.isdir(_os.path.join(_here, "models")):
    __path__ = [_os.path.dirname(_here)]

__version__ = "0.1.0"
