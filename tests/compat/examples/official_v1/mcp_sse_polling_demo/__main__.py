"""Entry point for the SSE Polling Demo server."""

from .server import main

if __name__ == "__main__":
    main()
