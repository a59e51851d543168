import re


def slugify(title):
    """'Hello, World!' -> 'hello-world'"""
    return re.sub(r"\s+", "-", title.strip().lower())
