"""Pure game rules: standard library only, one package per game."""
