"""gpuvalue: deep-learning training speed per dollar, ranked daily.

The code lives in the repository's top-level folders (flows/, scrapers/, warehouse/,
models/). A built wheel holds them under this package, so generic names like ``models``
never shadow another distribution. In a checkout this package's folder holds only this
file: the package path is extended to the repository root, so ``gpuvalue.models`` is
``<root>/models`` on any filesystem (no symbolic links to create or follow).
"""

from pathlib import Path

__version__ = "0.1.0"

# The rooms the package is made of, each a top-level folder of the repository.
LAYERS = ("flows", "scrapers", "warehouse", "models")


def _checkout_root() -> Path | None:
    """The repository root when this package runs from a checkout (its rooms beside it, not
    inside it as in a wheel); None in an installed wheel."""
    here = Path(__file__).resolve().parent
    if any((here / layer).is_dir() for layer in LAYERS):
        return None
    root = here.parent
    if all((root / layer / "__init__.py").is_file() for layer in LAYERS) and (root / "pyproject.toml").is_file():
        return root
    return None


_root = _checkout_root()
if _root is not None:
    __path__.append(str(_root))
