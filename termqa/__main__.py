from termqa.cli.main import main

main()
