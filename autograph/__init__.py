"""AutoGraph for NumPy: converts Python control flow into staged control flow."""

from autograph.impl.api import convert, do_not_convert, set_loop_options, to_code

__all__ = ["convert", "to_code", "do_not_convert", "set_loop_options"]
