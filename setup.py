"""The wheel's build compiles the catalogues (``.po`` → ``.mo``) into the package, so
an installed copy speaks every language without the source tree's ``make``."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogues(build_py):
    def run(self):
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path("scorekeeper/translations").glob("*/LC_MESSAGES/messages.po"):
            with po.open("rb") as fp:
                catalog = read_po(fp)
            target = Path(self.build_lib) / po.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as out:
                write_mo(out, catalog)


setup(cmdclass={"build_py": BuildWithCatalogues})
