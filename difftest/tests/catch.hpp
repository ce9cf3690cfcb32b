// Catch2 v3 when installed, v2.13 (Debian 12's package) otherwise.
#pragma once
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
