"""placeholder"""
class GarbageCollector:  # replaced below
    pass
