declare const tools: {
  /**
   * Configure every block of the deployment pipeline. The schema is huge and renders in abbreviated form.
   */
  deploy__configure_pipeline(args: {
    /** Configuration block number 0. This block controls several… */
    field_000: { [key: string]: unknown };
    /** Configuration block number 1. This block controls several… */
    field_001?: { [key: string]: unknown };
    /** Configuration block number 2. This block controls several… */
    field_002?: { [key: string]: unknown };
    /** Configuration block number 3. This block controls several… */
    field_003?: { [key: string]: unknown };
    /** Configuration block number 4. This block controls several… */
    field_004?: { [key: string]: unknown };
    /** Configuration block number 5. This block controls several… */
    field_005?: { [key: string]: unknown };
    /** Configuration block number 6. This block controls several… */
    field_006?: { [key: string]: unknown };
    /** Configuration block number 7. This block controls several… */
    field_007?: { [key: string]: unknown };
    /** Configuration block number 8. This block controls several… */
    field_008?: { [key: string]: unknown };
    /** Configuration block number 9. This block controls several… */
    field_009?: { [key: string]: unknown };
    /** Configuration block number 10. This block controls several… */
    field_010?: { [key: string]: unknown };
    /** Configuration block number 11. This block controls several… */
    field_011?: { [key: string]: unknown };
    /** Configuration block number 12. This block controls several… */
    field_012?: { [key: string]: unknown };
    /** Configuration block number 13. This block controls several… */
    field_013?: { [key: string]: unknown };
    /** Configuration block number 14. This block controls several… */
    field_014?: { [key: string]: unknown };
    /** Configuration block number 15. This block controls several… */
    field_015?: { [key: string]: unknown };
    /** Configuration block number 16. This block controls several… */
    field_016?: { [key: string]: unknown };
    /** Configuration block number 17. This block controls several… */
    field_017?: { [key: string]: unknown };
    /** Configuration block number 18. This block controls several… */
    field_018?: { [key: string]: unknown };
    /** Configuration block number 19. This block controls several… */
    field_019?: { [key: string]: unknown };
    /** Configuration block number 20. This block controls several… */
    field_020?: { [key: string]: unknown };
    /** Configuration block number 21. This block controls several… */
    field_021?: { [key: string]: unknown };
    /** Configuration block number 22. This block controls several… */
    field_022?: { [key: string]: unknown };
    /** Configuration block number 23. This block controls several… */
    field_023?: { [key: string]: unknown };
    /** Configuration block number 24. This block controls several… */
    field_024?: { [key: string]: unknown };
    /** Configuration block number 25. This block controls several… */
    field_025?: { [key: string]: unknown };
    /** Configuration block number 26. This block controls several… */
    field_026?: { [key: string]: unknown };
    /** Configuration block number 27. This block controls several… */
    field_027?: { [key: string]: unknown };
    /** Configuration block number 28. This block controls several… */
    field_028?: { [key: string]: unknown };
    /** Configuration block number 29. This block controls several… */
    field_029?: { [key: string]: unknown };
    /** Configuration block number 30. This block controls several… */
    field_030?: { [key: string]: unknown };
    /** Configuration block number 31. This block controls several… */
    field_031?: { [key: string]: unknown };
    /** Configuration block number 32. This block controls several… */
    field_032?: { [key: string]: unknown };
    /** Configuration block number 33. This block controls several… */
    field_033?: { [key: string]: unknown };
    /** Configuration block number 34. This block controls several… */
    field_034?: { [key: string]: unknown };
    /** Configuration block number 35. This block controls several… */
    field_035?: { [key: string]: unknown };
    /** Configuration block number 36. This block controls several… */
    field_036?: { [key: string]: unknown };
    /** Configuration block number 37. This block controls several… */
    field_037?: { [key: string]: unknown };
    /** Configuration block number 38. This block controls several… */
    field_038?: { [key: string]: unknown };
    /** Configuration block number 39. This block controls several… */
    field_039?: { [key: string]: unknown };
    /** Configuration block number 40. This block controls several… */
    field_040?: { [key: string]: unknown };
    /** Configuration block number 41. This block controls several… */
    field_041?: { [key: string]: unknown };
    /** Configuration block number 42. This block controls several… */
    field_042?: { [key: string]: unknown };
    /** Configuration block number 43. This block controls several… */
    field_043?: { [key: string]: unknown };
    /** Configuration block number 44. This block controls several… */
    field_044?: { [key: string]: unknown };
    /** Configuration block number 45. This block controls several… */
    field_045?: { [key: string]: unknown };
    /** Configuration block number 46. This block controls several… */
    field_046?: { [key: string]: unknown };
    /** Configuration block number 47. This block controls several… */
    field_047?: { [key: string]: unknown };
    /** Configuration block number 48. This block controls several… */
    field_048?: { [key: string]: unknown };
    /** Configuration block number 49. This block controls several… */
    field_049?: { [key: string]: unknown };
    /** Configuration block number 50. This block controls several… */
    field_050?: { [key: string]: unknown };
    /** Configuration block number 51. This block controls several… */
    field_051?: { [key: string]: unknown };
    /** Configuration block number 52. This block controls several… */
    field_052?: { [key: string]: unknown };
    /** Configuration block number 53. This block controls several… */
    field_053?: { [key: string]: unknown };
    /** Configuration block number 54. This block controls several… */
    field_054?: { [key: string]: unknown };
    /** Configuration block number 55. This block controls several… */
    field_055?: { [key: string]: unknown };
    /** Configuration block number 56. This block controls several… */
    field_056?: { [key: string]: unknown };
    /** Configuration block number 57. This block controls several… */
    field_057?: { [key: string]: unknown };
    /** Configuration block number 58. This block controls several… */
    field_058?: { [key: string]: unknown };
    /** Configuration block number 59. This block controls several… */
    field_059?: { [key: string]: unknown };
    /** Configuration block number 60. This block controls several… */
    field_060?: { [key: string]: unknown };
    /** Configuration block number 61. This block controls several… */
    field_061?: { [key: string]: unknown };
    /** Configuration block number 62. This block controls several… */
    field_062?: { [key: string]: unknown };
    /** Configuration block number 63. This block controls several… */
    field_063?: { [key: string]: unknown };
    /** Configuration block number 64. This block controls several… */
    field_064?: { [key: string]: unknown };
    /** Configuration block number 65. This block controls several… */
    field_065?: { [key: string]: unknown };
    /** Configuration block number 66. This block controls several… */
    field_066?: { [key: string]: unknown };
    /** Configuration block number 67. This block controls several… */
    field_067?: { [key: string]: unknown };
    /** Configuration block number 68. This block controls several… */
    field_068?: { [key: string]: unknown };
    /** Configuration block number 69. This block controls several… */
    field_069?: { [key: string]: unknown };
    /** Configuration block number 70. This block controls several… */
    field_070?: { [key: string]: unknown };
    /** Configuration block number 71. This block controls several… */
    field_071?: { [key: string]: unknown };
    /** Configuration block number 72. This block controls several… */
    field_072?: { [key: string]: unknown };
    /** Configuration block number 73. This block controls several… */
    field_073?: { [key: string]: unknown };
    /** Configuration block number 74. This block controls several… */
    field_074?: { [key: string]: unknown };
    /** Configuration block number 75. This block controls several… */
    field_075?: { [key: string]: unknown };
    /** Configuration block number 76. This block controls several… */
    field_076?: { [key: string]: unknown };
    /** Configuration block number 77. This block controls several… */
    field_077?: { [key: string]: unknown };
    /** Configuration block number 78. This block controls several… */
    field_078?: { [key: string]: unknown };
    /** Configuration block number 79. This block controls several… */
    field_079?: { [key: string]: unknown };
    /** Configuration block number 80. This block controls several… */
    field_080?: { [key: string]: unknown };
    /** Configuration block number 81. This block controls several… */
    field_081?: { [key: string]: unknown };
    /** Configuration block number 82. This block controls several… */
    field_082?: { [key: string]: unknown };
    /** Configuration block number 83. This block controls several… */
    field_083?: { [key: string]: unknown };
    /** Configuration block number 84. This block controls several… */
    field_084?: { [key: string]: unknown };
    /** Configuration block number 85. This block controls several… */
    field_085?: { [key: string]: unknown };
    /** Configuration block number 86. This block controls several… */
    field_086?: { [key: string]: unknown };
    /** Configuration block number 87. This block controls several… */
    field_087?: { [key: string]: unknown };
    /** Configuration block number 88. This block controls several… */
    field_088?: { [key: string]: unknown };
    /** Configuration block number 89. This block controls several… */
    field_089?: { [key: string]: unknown };
    /** Configuration block number 90. This block controls several… */
    field_090?: { [key: string]: unknown };
    /** Configuration block number 91. This block controls several… */
    field_091?: { [key: string]: unknown };
    /** Configuration block number 92. This block controls several… */
    field_092?: { [key: string]: unknown };
    /** Configuration block number 93. This block controls several… */
    field_093?: { [key: string]: unknown };
    /** Configuration block number 94. This block controls several… */
    field_094?: { [key: string]: unknown };
    /** Configuration block number 95. This block controls several… */
    field_095?: { [key: string]: unknown };
    /** Configuration block number 96. This block controls several… */
    field_096?: { [key: string]: unknown };
    /** Configuration block number 97. This block controls several… */
    field_097?: { [key: string]: unknown };
    /** Configuration block number 98. This block controls several… */
    field_098?: { [key: string]: unknown };
    /** Configuration block number 99. This block controls several… */
    field_099?: { [key: string]: unknown };
    /** Configuration block number 100. This block controls several… */
    field_100?: { [key: string]: unknown };
    /** Configuration block number 101. This block controls several… */
    field_101?: { [key: string]: unknown };
    /** Configuration block number 102. This block controls several… */
    field_102?: { [key: string]: unknown };
    /** Configuration block number 103. This block controls several… */
    field_103?: { [key: string]: unknown };
    /** Configuration block number 104. This block controls several… */
    field_104?: { [key: string]: unknown };
    /** Configuration block number 105. This block controls several… */
    field_105?: { [key: string]: unknown };
    /** Configuration block number 106. This block controls several… */
    field_106?: { [key: string]: unknown };
    /** Configuration block number 107. This block controls several… */
    field_107?: { [key: string]: unknown };
    /** Configuration block number 108. This block controls several… */
    field_108?: { [key: string]: unknown };
    /** Configuration block number 109. This block controls several… */
    field_109?: { [key: string]: unknown };
    /** Configuration block number 110. This block controls several… */
    field_110?: { [key: string]: unknown };
    /** Configuration block number 111. This block controls several… */
    field_111?: { [key: string]: unknown };
    /** Configuration block number 112. This block controls several… */
    field_112?: { [key: string]: unknown };
    /** Configuration block number 113. This block controls several… */
    field_113?: { [key: string]: unknown };
    /** Configuration block number 114. This block controls several… */
    field_114?: { [key: string]: unknown };
    /** Configuration block number 115. This block controls several… */
    field_115?: { [key: string]: unknown };
    /** Configuration block number 116. This block controls several… */
    field_116?: { [key: string]: unknown };
    /** Configuration block number 117. This block controls several… */
    field_117?: { [key: string]: unknown };
    /** Configuration block number 118. This block controls several… */
    field_118?: { [key: string]: unknown };
    /** Configuration block number 119. This block controls several… */
    field_119?: { [key: string]: unknown };
  }): Promise<unknown>;
  /** Refs that double at every level (2^20 leaves) stop at the expansion cap. */
  deploy__exponential_refs(args?: {
    tree?: {
      left?: {
        left?: { left?: { [key: string]: unknown }; right?: { [key: string]: unknown } };
        right?: { left?: { [key: string]: unknown }; right?: { [key: string]: unknown } };
      };
      right?: {
        left?: { left?: { [key: string]: unknown }; right?: { [key: string]: unknown } };
        right?: { left?: { [key: string]: unknown }; right?: { [key: string]: unknown } };
      };
    };
  }): Promise<unknown>;
};
