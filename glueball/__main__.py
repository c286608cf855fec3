from glueball.cli.main import main

main()
