"""declare -> define -> bind -> run; the standard library only."""
