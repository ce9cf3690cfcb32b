// Catch2 v2 needs a main from the test program; v3's comes from Catch2::Catch2WithMain.
#ifndef DIFFTEST_CATCH_PROVIDES_MAIN
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
