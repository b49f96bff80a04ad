"""Measures, contrasts, bootstrap intervals and diagnostic tests over scored item-times."""
