"""Source forms the parser and analyses must handle: lambdas on continuation lines, several
lambdas on one line, control flow inside `match` cases and inside class bodies."""

import numpy as np

import autograph


def apply(f, x):
    return f(x)


def lambda_on_continuation_line(x):
    return apply(lambda v: v * 2.0 if v > 0 else -v, x)


def two_lambdas_on_one_line(x):
    add_one, add_two = (lambda v: v + 1.0), (lambda v: v + 2.0)
    return add_one(x), add_two(x)


PAIR = (lambda v: v + 1.0, lambda v: v * 10.0)


def test_lambda_on_a_continuation_line(same_as_eager):
    same_as_eager(lambda_on_continuation_line, np.float64(3.0), np.float64(-3.0))
    staged = same_as_eager(
        lambda x: apply(lambda v: v - 1.0 if v > 1.0 else v, x), np.float64(3.0), np.float64(0.5)
    )
    assert staged.tracing_count == 1


def test_several_lambdas_on_one_line_told_apart_by_column(same_as_eager):
    same_as_eager(two_lambdas_on_one_line, np.float64(1.0))
    assert autograph.to_code(PAIR[0]).strip() == "lambda v: v + 1.0"
    assert autograph.to_code(PAIR[1]).strip() == "lambda v: v * 10.0"


def match_with_control_flow(x, k):
    match k:
        case 1:
            if x > 0:
                y = x
            else:
                y = -x
        case [a, b]:
            y = x * a
            while y < 100:
                y = y * 2 + b
        case _:
            y = 0 * x
    return y


def test_control_flow_inside_match_cases(same_as_eager):
    same_as_eager(
        match_with_control_flow,
        (np.float64(-3.0), 1),
        (np.float64(3.0), 1),
        (np.float64(3.0), [2, 1]),
        (np.float64(3.0), "other"),
    )


def class_body_with_control_flow(x):
    class Scaler:
        scale = 2
        if scale > 1:
            big = True
        else:
            big = False
        for i in range(3):
            if i == 1:
                break

        def apply(self, v):
            if v > 0:
                return v * self.scale
            return v

    return Scaler().apply(x), Scaler.big, Scaler.i


def test_class_body_runs_as_written_and_its_methods_are_converted(same_as_eager):
    same_as_eager(class_body_with_control_flow, np.float64(2.0), np.float64(-2.0))
    code = autograph.to_code(class_body_with_control_flow)
    assert "        if scale > 1:" in code and "ag__.if_stmt(v > 0" in code
