def parse(s):
    if s == "":
        return []
    return [int(x) for x in s.split(",")]
