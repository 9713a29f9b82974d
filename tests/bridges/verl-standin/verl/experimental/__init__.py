# Stand-in package (see verl/__init__.py).
