"""The facade: ``Memory`` (``facade.py``), composed of the parts beside it, and its awaitable
twin ``AsyncMemory`` (``asynchronous.py``)."""
