"""gpuvalue: deep-learning training speed per dollar, ranked daily.

The code lives in the repository's top-level folders (flows/, scrapers/, warehouse/,
models/). In a checkout, this package's ``flows``, ``scrapers``, ``warehouse`` and
``models`` are relative symbolic links to them, so Python, editors and type checkers all
find ``gpuvalue.models`` at ``<root>/models``; a built wheel holds real copies under this
package, so generic names like ``models`` never shadow another distribution.
"""

__version__ = "0.1.0"
