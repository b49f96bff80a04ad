"""Hostile YAML for the loader tests."""


def alias_bomb(levels: int = 9) -> str:
    """Nine times more strings at every level: 465 bytes stand for 9**9 strings."""
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"
