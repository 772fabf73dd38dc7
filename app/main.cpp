// The scorch executable: headless subcommands run without Qt; anything else opens the GUI.
#include "cli.h"

int main(int argc, char** argv) {
    if (argc < 2) {
        char help[] = "--help";
        char* args[] = {argv[0], help, nullptr};
        return scorch::cli::run(2, args);
    }
    return scorch::cli::run(argc, argv);
}
