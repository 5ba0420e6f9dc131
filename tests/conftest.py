"""Suite-wide settings: every graph a test traces is checked by the verifier after the passes."""

from runtime.options import set_options


def pytest_configure(config):
    set_options(verify_graphs=True)
