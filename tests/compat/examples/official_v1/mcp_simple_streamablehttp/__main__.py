from .server import main

if __name__ == "__main__":
    main()  # type: ignore[call-arg]
