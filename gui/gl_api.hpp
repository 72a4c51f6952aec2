// The OpenGL 3.3 core functions the viewer calls, straight from libGL: Linux's libGL (glvnd)
// exports every core entry point, so no loader library is needed. Dear ImGui's OpenGL3 backend
// loads its own functions.
#pragma once

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <GL/gl.h>
#include <GL/glext.h>
